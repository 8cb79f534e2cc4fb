// The exported surface of the WebAssembly core. Filled in by the core work.
export function coreVersion(): i32 {
  return 1;
}
