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
      'group:product',
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

  it('offers the sub-console and product areas, now that each has its calls and pages', () => {
    // KADP, TDE and RDM have their client and policy calls and pages; the product page its call.
    for (const area of ['kadp', 'cte', 'rdm', 'product']) {
      expect(areas).toContain(`area:${area}`);
      expect(isPermission(`${area}:read`)).toBe(true);
    }
  });
});
