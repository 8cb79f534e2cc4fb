/** Numbers, sizes, rates and record bytes as the pages show them. */

const NUMBER = new Intl.NumberFormat('en-US');

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : NUMBER.format(value);
}

export function formatBytes(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let scaled = value;
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit++;
  }
  return `${unit === 0 ? scaled.toFixed(0) : scaled.toFixed(1)} ${units[unit]}`;
}

export function formatRate(value: number | null | undefined, unit: string): string {
  if (value === null || value === undefined) return '—';
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${unit}/s`;
}

export function formatByteRate(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${formatBytes(value)}/s`;
}

export function formatSeconds(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (value < 60) return `${value.toFixed(value < 10 ? 1 : 0)} s`;
  if (value < 3600) return `${Math.floor(value / 60)} min ${Math.floor(value % 60)} s`;
  return `${(value / 3600).toFixed(1)} h`;
}

export function formatTime(ms: number): string {
  if (ms < 0) return '—';
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

export type ViewFormat = 'text' | 'json' | 'hex';

/** base64 (as the API sends keys, values and header values) to bytes. */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const UTF8 = new TextDecoder('utf-8');

/** A key, value or header value shown as text, JSON (pretty when it parses, else text) or hex. */
export function showBytes(base64: string | null, format: ViewFormat): string {
  if (base64 === null) return 'null';
  const bytes = fromBase64(base64);
  if (format === 'hex') return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  const text = UTF8.decode(bytes);
  if (format === 'json') {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }
  return text;
}
