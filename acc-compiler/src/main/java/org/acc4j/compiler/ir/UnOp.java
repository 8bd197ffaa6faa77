package org.acc4j.compiler.ir;

/** Java's unary operators: negation, the narrowing int conversions i2b, i2s, i2c, and predicate not. */
public enum UnOp {
    NEG("-"), TO_BYTE("(byte) "), TO_SHORT("(short) "), TO_CHAR("(char) "), NOT("!");

    private final String symbol;

    UnOp(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }
}
