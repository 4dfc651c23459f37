import { generatePath } from 'react-router';
import { menuModel, type MenuNode } from '@ksp/contracts';

function keyDetailPattern(nodes: readonly MenuNode[] = menuModel): string | undefined {
  for (const node of nodes) {
    if (node.component === 'console/key/detail') return node.path;
    const inner = keyDetailPattern(node.children ?? []);
    if (inner) return inner;
  }
  return undefined;
}

/** A link that opens a key's detail page of the main console, from any page (the TDE database grants). */
export function keyDetailHref(id: string): string {
  return generatePath(keyDetailPattern() ?? '/console/key/detail/:id', { id });
}
