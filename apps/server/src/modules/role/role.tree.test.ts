import { describe, expect, it } from 'vitest';
import { isPermission } from '@ksp/contracts';
import { permissionTree } from './role.service.js';

describe('the permission tree the role editor gets', () => {
  const tree = permissionTree();
  const areas = tree.flatMap((group) => (group.children ?? []).map((area) => area.key));
  const leaves = tree.flatMap((group) =>
    (group.children ?? []).flatMap((area) => (area.children ?? []).map((leaf) => leaf.key)),
  );

  it('offers the areas served today, grouped as the menu is', () => {
    expect(tree.map((group) => group.key)).toEqual([
      'group:dashboard',
      'group:access',
      'group:keys',
      'group:certificates',
      'group:log',
      'group:settings',
      'group:sub-consoles',
    ]);
    expect(areas).toContain('area:credential');
    expect(leaves).toContain('credential:use');
    expect(areas).toContain('area:key');
    expect(areas).toContain('area:log');
    expect(areas).toContain('area:quantum');
    expect(areas).toContain('area:license');
    expect(areas).toContain('area:hsm');
    expect(leaves).toContain('key:export');
    expect(areas).toContain('area:cert');
    expect(leaves).toContain('cert:export');
  });

  it('hides the areas that have no calls or pages yet, whose permissions stay valid for stored roles', () => {
    for (const hidden of ['cte', 'product']) {
      expect(areas).not.toContain(`area:${hidden}`);
      expect(isPermission(`${hidden}:read`)).toBe(true);
    }
    // KADP has its client calls and pages now: the role editor offers it.
    expect(areas).toContain('area:kadp');
  });
});
