// Its own module so that main.ts can recognise it without loading @clickhouse/client, which an
// instance without ClickHouse never needs.
export class EmbeddedEngineMissing extends Error {}
