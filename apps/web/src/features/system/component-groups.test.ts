import { describe, expect, it } from 'vitest';
import { groupComponent } from './component-groups';

describe('key component grouping', () => {
  it('groups 64 hex characters by four', () => {
    const hex = '0123456789abcdef'.repeat(4);
    const grouped = groupComponent(hex);
    expect(grouped.split(' ')).toHaveLength(16);
    expect(grouped.startsWith('0123 4567 89ab cdef')).toBe(true);
    expect(grouped.replaceAll(' ', '')).toBe(hex);
  });
});
