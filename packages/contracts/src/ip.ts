/**
 * IP whitelist entries: an IPv4 or IPv6 address, or a CIDR range of either.
 * Pure functions shared by the server (enforcement) and the console (form rules).
 */
export function parseIPv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^(0|[1-9]\d{0,2})$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255) ? bytes : null;
}

export function parseIPv6(text: string): number[] | null {
  let s = (text.toLowerCase().split('%')[0] ?? '').trim();
  const lastColon = s.lastIndexOf(':');
  if (lastColon >= 0 && s.slice(lastColon + 1).includes('.')) {
    // An embedded IPv4 tail (::ffff:10.0.0.1) becomes two hex groups.
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (!v4) return null;
    const [a = 0, b = 0, c = 0, d = 0] = v4;
    s = `${s.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string | undefined) => (h ? h.split(':') : []);
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  if (![...head, ...rest].every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  const words = (gs: string[]) => gs.map((g) => parseInt(g, 16));
  if (halves.length === 2) {
    const n = head.length + rest.length;
    if (n > 7) return null;
    return [...words(head), ...new Array<number>(8 - n).fill(0), ...words(rest)];
  }
  return head.length === 8 ? words(head) : null;
}

const v6Bytes = (words: number[]) => words.flatMap((w) => [w >> 8, w & 0xff]);

/** Bytes of an address (4 or 16), IPv4-mapped IPv6 reduced to IPv4. */
export function addressBytes(text: string): number[] | null {
  const v4 = parseIPv4(text);
  if (v4) return v4;
  const v6 = parseIPv6(text);
  if (!v6) return null;
  const bytes = v6Bytes(v6);
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

export function isIpRule(text: string): boolean {
  const [addr = '', prefix, ...extra] = text.trim().split('/');
  if (extra.length) return false;
  const bits = parseIPv4(addr) ? 32 : parseIPv6(addr) ? 128 : 0;
  if (!bits) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= bits;
}

/** True when `address` falls in one of `rules`; an empty list allows every address. */
export function ipAllowed(address: string, rules: readonly string[]): boolean {
  if (rules.length === 0) return true;
  const addr = addressBytes(address);
  if (!addr) return false;
  return rules.some((rule) => {
    const [base = '', prefixText] = rule.trim().split('/');
    const v6 = parseIPv4(base) ? null : parseIPv6(base);
    const net = parseIPv4(base) ?? (v6 ? v6Bytes(v6) : null);
    if (!net || net.length !== addr.length) return false;
    const prefix = prefixText === undefined ? net.length * 8 : Number(prefixText);
    for (let bit = 0; bit < prefix; bit++) {
      const i = bit >> 3;
      const mask = 0x80 >> (bit & 7);
      if (((net[i] ?? 0) & mask) !== ((addr[i] ?? 0) & mask)) return false;
    }
    return true;
  });
}
