package org.acc4j.compiler.ir;

/** Java's binary operators on computational types. */
public enum BinOp {
    ADD("+"), SUB("-"), MUL("*"), DIV("/"), REM("%"), AND("&"), OR("|"), XOR("^"), SHL("<<"), SHR(">>"),
    USHR(">>>");

    private final String symbol;

    BinOp(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    public boolean isShift() {
        return this == SHL || this == SHR || this == USHR;
    }
}
