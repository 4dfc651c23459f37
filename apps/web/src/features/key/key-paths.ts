import { generatePath } from 'react-router';
import { menuModel, type MenuNode, type PageKey } from '@ksp/contracts';

/** The key pages serve the main console and the KMS sub-console; links stay in the area they came from. */
export type KeyArea = 'console' | 'kms';

/** The route pattern of a page key, from the contract's menu model (the one table of menu paths). */
function pathOfPage(key: PageKey, nodes: readonly MenuNode[] = menuModel): string | undefined {
  for (const node of nodes) {
    if (node.component === key) return node.path;
    const inner = pathOfPage(key, node.children ?? []);
    if (inner) return inner;
  }
  return undefined;
}

function requiredPath(key: PageKey): string {
  const path = pathOfPage(key);
  if (!path) throw new Error(`No menu path for page '${key}'`);
  return path;
}

const keyPaths = {
  console: { list: requiredPath('console/key/index'), detail: requiredPath('console/key/detail') },
  kms: { list: requiredPath('kms/key/index'), detail: requiredPath('kms/key/detail') },
};

export function keyAreaOf(pathname: string): KeyArea {
  return pathname === '/kms' || pathname.startsWith('/kms/') ? 'kms' : 'console';
}

export function keyListPath(area: KeyArea): string {
  return keyPaths[area].list;
}

export function keyDetailPath(area: KeyArea, id: string): string {
  return generatePath(keyPaths[area].detail, { id });
}
