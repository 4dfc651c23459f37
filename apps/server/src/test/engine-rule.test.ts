import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ONE_ENGINE_SUITES, suiteKey } from './engine-rule.js';
import { engines } from './harness.js';

const src = fileURLToPath(new URL('..', import.meta.url));

describe('the engine rule', () => {
  it('names suites that exist and ask the harness for their engines, each with a reason', () => {
    for (const [path, reason] of Object.entries(ONE_ENGINE_SUITES)) {
      expect(existsSync(`${src}${path}`), path).toBe(true);
      expect(readFileSync(`${src}${path}`, 'utf8'), path).toContain('engines()');
      expect(reason.length, path).toBeGreaterThan(20);
    }
  });

  it('reads the suite from the path vitest gives, on any platform', () => {
    expect(suiteKey('/repo/apps/server/src/modules/key/crypto.test.ts')).toBe('modules/key/crypto.test.ts');
    expect(suiteKey('C:\\repo\\apps\\server\\src\\modules\\key\\crypto.test.ts')).toBe(
      'modules/key/crypto.test.ts',
    );
  });

  it('gives an unlisted suite (this one) every engine there is', async () => {
    const chosen = await engines();
    expect(chosen[0]).toBe('sqlite');
    if (process.env.CI === 'true') expect(chosen).toEqual(['sqlite', 'postgres']);
  });
});
