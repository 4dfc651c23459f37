import { describe, expect, it } from 'vitest';
import { LOGO_MAX_BYTES } from '@ksp/contracts';
import { logoFileProblem } from './logo-field';

describe('logo file check', () => {
  it('accepts PNG, JPEG, WebP and SVG up to 256 KB', () => {
    expect(LOGO_MAX_BYTES).toBe(256 * 1024);
    for (const type of ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml']) {
      expect(logoFileProblem({ type, size: 1000 })).toBeNull();
    }
    expect(logoFileProblem({ type: 'image/png', size: LOGO_MAX_BYTES })).toBeNull();
  });

  it('refuses other types and larger files', () => {
    expect(logoFileProblem({ type: 'image/gif', size: 10 })).toBe('badType');
    expect(logoFileProblem({ type: 'text/html', size: 10 })).toBe('badType');
    expect(logoFileProblem({ type: 'image/png', size: LOGO_MAX_BYTES + 1 })).toBe('tooLarge');
  });
});
