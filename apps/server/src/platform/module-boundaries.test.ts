import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Imports go one way (docs/style.md#layout-and-imports): platform → modules → app.ts. A module reaches another
 * module's service through `ctx.use(...)`, typed by `ModuleServices` in `platform/module.ts`,
 * never by importing the other module's files, not even for a type. Tests may import what
 * they need.
 */
const src = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const modulesDir = join(src, 'modules');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** Every module specifier a file names: `from '...'`, `import '...'`, `import('...')`. */
function specifiers(text: string): string[] {
  return [...text.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
}

/** The module folder (`modules/<area>`) a path lies in, or null outside `modules/`. */
function areaOf(path: string): string | null {
  const rel = relative(modulesDir, path);
  if (rel.startsWith('..') || rel === '') return null;
  return rel.split(sep)[0]!;
}

/** `file: specifier` for each import of `file` that reaches into a module folder it may not. */
function crossings(file: string, text: string): string[] {
  const own = areaOf(file);
  return specifiers(text)
    .filter((spec) => spec.startsWith('.'))
    .filter((spec) => {
      const target = areaOf(resolve(dirname(file), spec));
      return target !== null && target !== own;
    })
    .map((spec) => `${relative(src, file)}: ${spec}`);
}

describe('module boundaries', () => {
  it('finds an import into another module, whatever its form', () => {
    const file = join(modulesDir, 'role', 'role.service.ts');
    const text = [
      "import { findUserById } from '../user/user.store.js';",
      "import type { UserService } from '../user/user.service.js';",
      "export { countUsers } from '../user/user.store.js';",
      "const late = await import('../user/user.store.js');",
      "import '../user/user.module.js';",
      "import { roleVisibleTo } from './role.reach.js';",
      "import type { ModuleServices } from '../../platform/module.js';",
    ].join('\n');
    expect(crossings(file, text)).toHaveLength(5);
  });

  it('no module imports another module’s files', () => {
    const found = sourceFiles(modulesDir).flatMap((file) => crossings(file, readFileSync(file, 'utf8')));
    expect(found, 'ask for the service with ctx.use(...) instead').toEqual([]);
  });

  it('the platform imports no module', () => {
    const found = sourceFiles(join(src, 'platform')).flatMap((file) =>
      crossings(file, readFileSync(file, 'utf8')),
    );
    expect(found, 'the platform declares a ModuleServices slot; a module fills it').toEqual([]);
  });
});
