package org.acc4j.compiler.ir;

/** A comparison condition. */
public enum Cond {
    EQ("=="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">=");

    private final String symbol;

    Cond(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    /** The condition true exactly when this one is false (for ordered operands). */
    public Cond negate() {
        return switch (this) {
            case EQ -> NE; case NE -> EQ; case LT -> GE; case GE -> LT; case GT -> LE; case LE -> GT;
        };
    }

    /** The condition with its operands exchanged: {@code a < b} is {@code b > a}. */
    public Cond swap() {
        return switch (this) {
            case EQ -> EQ; case NE -> NE; case LT -> GT; case GT -> LT; case LE -> GE; case GE -> LE;
        };
    }
}
