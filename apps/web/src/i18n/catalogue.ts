/** The shape of a catalogue: the English one defines it, the Chinese one must match it. */
export type Catalogue<T> = { [K in keyof T]: T[K] extends string ? string : Catalogue<T[K]> };

/** Every dotted key of a catalogue object, for the parity check. */
export function flattenKeys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, child]) =>
    flattenKeys(child, prefix ? `${prefix}.${key}` : key),
  );
}
