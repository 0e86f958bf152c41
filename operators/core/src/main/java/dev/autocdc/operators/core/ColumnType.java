package dev.autocdc.operators.core;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The type of a target column, as the core sees it. Values of a column are plain Java objects:
 * BOOLEAN {@link Boolean}, TINYINT {@link Byte}, SMALLINT {@link Short}, INT {@link Integer},
 * BIGINT {@link Long}, FLOAT {@link Float}, DOUBLE {@link Double}, DECIMAL {@link
 * java.math.BigDecimal}, STRING {@link String}, BYTES {@code byte[]}, DATE {@link
 * java.time.LocalDate}, TIME {@link java.time.LocalTime}, TIMESTAMP {@link
 * java.time.LocalDateTime}, TIMESTAMP_LTZ {@link java.time.Instant}, ROW {@code Object[]} (one
 * element per field), ARRAY {@link List}, MAP {@link java.util.Map}. Null is SQL NULL.
 */
public final class ColumnType implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The kinds of column the engine understands. */
    public enum Kind {
        BOOLEAN,
        TINYINT,
        SMALLINT,
        INT,
        BIGINT,
        FLOAT,
        DOUBLE,
        DECIMAL,
        STRING,
        BYTES,
        DATE,
        TIME,
        TIMESTAMP,
        TIMESTAMP_LTZ,
        ROW,
        ARRAY,
        MAP
    }

    private final Kind kind;
    private final List<String> fieldNames;
    private final List<ColumnType> children;

    private ColumnType(Kind kind, List<String> fieldNames, List<ColumnType> children) {
        this.kind = kind;
        this.fieldNames = List.copyOf(fieldNames);
        this.children = List.copyOf(children);
    }

    /** A type without children (every kind but ROW, ARRAY and MAP). */
    public static ColumnType of(Kind kind) {
        if (kind == Kind.ROW || kind == Kind.ARRAY || kind == Kind.MAP) {
            throw new IllegalArgumentException(kind + " needs children");
        }
        return new ColumnType(kind, List.of(), List.of());
    }

    /** A ROW (a STRUCT sequence is one) with named fields. */
    public static ColumnType row(List<String> names, List<ColumnType> types) {
        if (names.size() != types.size()) {
            throw new IllegalArgumentException("ROW needs one type per field name");
        }
        return new ColumnType(Kind.ROW, names, types);
    }

    public static ColumnType array(ColumnType element) {
        return new ColumnType(Kind.ARRAY, List.of(), List.of(element));
    }

    public static ColumnType map(ColumnType key, ColumnType value) {
        return new ColumnType(Kind.MAP, List.of(), List.of(key, value));
    }

    public Kind kind() {
        return kind;
    }

    public List<String> fieldNames() {
        return fieldNames;
    }

    public List<ColumnType> children() {
        return children;
    }

    /**
     * Whether the type can be a SEQUENCE BY / SYSTEM SEQUENCE BY: integers, DECIMAL, DATE,
     * TIMESTAMP, TIMESTAMP_LTZ, STRING, and a ROW (STRUCT) of those.
     */
    public boolean sortsAsSequence() {
        switch (kind) {
            case TINYINT:
            case SMALLINT:
            case INT:
            case BIGINT:
            case DECIMAL:
            case DATE:
            case TIMESTAMP:
            case TIMESTAMP_LTZ:
            case STRING:
                return true;
            case ROW:
                return !children.isEmpty()
                        && children.stream().allMatch(ColumnType::sortsAsSequence);
            default:
                return false;
        }
    }

    /**
     * A stable text form, used in serializer snapshots: {@code INT}, {@code ROW<a INT, b STRING>}.
     */
    @Override
    public String toString() {
        switch (kind) {
            case ROW:
                {
                    StringBuilder b = new StringBuilder("ROW<");
                    for (int i = 0; i < children.size(); i++) {
                        if (i > 0) {
                            b.append(", ");
                        }
                        b.append('`')
                                .append(fieldNames.get(i).replace("`", "``"))
                                .append("` ")
                                .append(children.get(i));
                    }
                    return b.append('>').toString();
                }
            case ARRAY:
                return "ARRAY<" + children.get(0) + ">";
            case MAP:
                return "MAP<" + children.get(0) + ", " + children.get(1) + ">";
            default:
                return kind.name();
        }
    }

    /** Parses {@link #toString()}'s form back. */
    public static ColumnType parse(String text) {
        Parser p = new Parser(text);
        ColumnType t = p.type();
        p.skipBlanks();
        if (p.pos != text.length()) {
            throw new IllegalArgumentException("Trailing text in type: " + text);
        }
        return t;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ColumnType)) {
            return false;
        }
        ColumnType other = (ColumnType) o;
        return kind == other.kind
                && fieldNames.equals(other.fieldNames)
                && children.equals(other.children);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, fieldNames, children);
    }

    private static final class Parser {
        private final String s;
        private int pos;

        Parser(String s) {
            this.s = s;
        }

        void skipBlanks() {
            while (pos < s.length() && s.charAt(pos) == ' ') {
                pos++;
            }
        }

        void expect(char c) {
            skipBlanks();
            if (pos >= s.length() || s.charAt(pos) != c) {
                throw new IllegalArgumentException("Expected '" + c + "' at " + pos + " in " + s);
            }
            pos++;
        }

        String word() {
            skipBlanks();
            int start = pos;
            while (pos < s.length()
                    && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_')) {
                pos++;
            }
            return s.substring(start, pos);
        }

        String quoted() {
            expect('`');
            StringBuilder b = new StringBuilder();
            while (true) {
                char c = s.charAt(pos++);
                if (c == '`') {
                    if (pos < s.length() && s.charAt(pos) == '`') {
                        b.append('`');
                        pos++;
                    } else {
                        return b.toString();
                    }
                } else {
                    b.append(c);
                }
            }
        }

        ColumnType type() {
            Kind kind = Kind.valueOf(word());
            switch (kind) {
                case ROW:
                    {
                        expect('<');
                        List<String> names = new ArrayList<>();
                        List<ColumnType> types = new ArrayList<>();
                        do {
                            names.add(quoted());
                            types.add(type());
                            skipBlanks();
                        } while (pos < s.length() && s.charAt(pos) == ',' && pos++ >= 0);
                        expect('>');
                        return row(names, types);
                    }
                case ARRAY:
                    {
                        expect('<');
                        ColumnType e = type();
                        expect('>');
                        return array(e);
                    }
                case MAP:
                    {
                        expect('<');
                        ColumnType k = type();
                        expect(',');
                        ColumnType v = type();
                        expect('>');
                        return map(k, v);
                    }
                default:
                    return of(kind);
            }
        }
    }
}
