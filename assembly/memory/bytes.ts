// Big-endian loads and stores (Kafka's wire and disk order) over raw memory. WebAssembly is
// little-endian, so each goes through bswap. Callers prove bounds before calling.

@inline export function loadI16BE(ptr: usize): i32 {
  return <i32>bswap<i16>(load<i16>(ptr));
}

@inline export function loadI32BE(ptr: usize): i32 {
  return bswap<i32>(load<i32>(ptr));
}

@inline export function loadI64BE(ptr: usize): i64 {
  return bswap<i64>(load<i64>(ptr));
}

@inline export function storeI16BE(ptr: usize, value: i32): void {
  store<i16>(ptr, bswap<i16>(<i16>value));
}

@inline export function storeI32BE(ptr: usize, value: i32): void {
  store<i32>(ptr, bswap<i32>(value));
}

@inline export function storeI64BE(ptr: usize, value: i64): void {
  store<i64>(ptr, bswap<i64>(value));
}
