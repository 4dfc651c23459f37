import { describe, expect, it } from 'vitest';
import { abbreviateNumber, formatThousands } from './number-format';

describe('number abbreviation', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1000, '1k'],
    [1234, '1.2k'],
    [1_000_000, '1M'],
    [2_500_000_000, '2.5G'],
    [1e12, '1T'],
    [3.04e15, '3P'],
    [1e18, '1E'],
  ])('%d → %s', (value, text) => {
    expect(abbreviateNumber(value)).toBe(text);
  });

  it('keeps the requested digits without trailing zeros', () => {
    expect(abbreviateNumber(1234, 2)).toBe('1.23k');
    expect(abbreviateNumber(1500, 3)).toBe('1.5k');
  });
});

describe('thousands separator', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1000, '1,000'],
    [1234567, '1,234,567'],
    [-1234567.891, '-1,234,567.891'],
    ['98765', '98,765'],
    ['x', '0'],
  ])('%s → %s', (value, text) => {
    expect(formatThousands(value)).toBe(text);
  });
});
