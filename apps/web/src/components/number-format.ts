const units = [
  { value: 1e18, symbol: 'E' },
  { value: 1e15, symbol: 'P' },
  { value: 1e12, symbol: 'T' },
  { value: 1e9, symbol: 'G' },
  { value: 1e6, symbol: 'M' },
  { value: 1e3, symbol: 'k' },
] as const;

/** 1234 → "1.2k", 5e6 → "5M" (1e3 k, 1e6 M, 1e9 G, 1e12 T, 1e15 P, 1e18 E); smaller numbers as they are. */
export function abbreviateNumber(num: number, digits = 1): string {
  for (const unit of units) {
    if (num >= unit.value) {
      return (num / unit.value).toFixed(digits).replace(/\.0+$|(\.[0-9]*[1-9])0+$/, '$1') + unit.symbol;
    }
  }
  return num.toString();
}

/** 1234567 → "1,234,567"; decimals are kept, anything not a number is 0. */
export function formatThousands(num: number | string): string {
  return (Number(num) || 0)
    .toString()
    .replace(/^-?\d+/g, (whole) => whole.replace(/(?=(?!\b)(\d{3})+$)/g, ','));
}
