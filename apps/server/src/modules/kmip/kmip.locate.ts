import { isCustomName, nameText, type Attribute } from './kmip.attributes.js';
import { KmipError } from './kmip.message.js';
import type { Ttlv } from './kmip.ttlv.js';

/** Locate looks at most this many rows of each kind (pages of 100) and answers at most this many identifiers. */
export const LOCATE_PAGES = 100;
export const LOCATE_MAX = 1000;

/**
 * The identifiers a Locate answers, gathered kind after kind: Offset Items skips the first
 * matches, Maximum Items (at most LOCATE_MAX) caps the answer, and `seen` counts the matches
 * looked at (Located Items).
 */
export function createCollector(max: number | undefined, offset: number) {
  if (max !== undefined && max < 0) throw new KmipError('InvalidField', 'Maximum Items must not be negative');
  if (offset < 0) throw new KmipError('InvalidField', 'Offset Items must not be negative');
  const wanted = max === undefined || max === 0 ? LOCATE_MAX : Math.min(max, LOCATE_MAX);
  const found: string[] = [];
  let seen = 0;
  return {
    found,
    seen: () => seen,
    full: () => found.length >= wanted,
    add(uid: string) {
      seen++;
      if (seen > offset && found.length < wanted) found.push(uid);
    },
  };
}
export type Collector = ReturnType<typeof createCollector>;

/** The attributes a Locate compares on a certificate or secret data; any other it is given is not a filter there. */
const COMPARED = new Set([
  'Name',
  'Object Type',
  'State',
  'Certificate Type',
  'Cryptographic Algorithm',
  'Cryptographic Length',
  'Object Group',
]);

const same = (a: Ttlv, b: Ttlv) =>
  a.type === 'Structure' || b.type === 'Structure' ? false : a.type === b.type && a.value === b.value;

/**
 * Whether an object with the attributes `has` matches every attribute a Locate gives
 * (docs/kmip.md#operations): Name, Object Type, State and Certificate Type are compared; an
 * algorithm, length, Object Group or custom attribute, which certificates and secret data do not
 * have, matches none of them.
 */
export function matchesAsked(asked: Attribute[], has: Attribute[]): boolean {
  return asked.every((want) => {
    if (!COMPARED.has(want.name) && !isCustomName(want.name)) return true;
    const mine = has.find((a) => a.name === want.name);
    if (!mine) return false;
    if (want.name === 'Name') return nameText(want.value) === nameText(mine.value);
    return same(want.value, mine.value);
  });
}
