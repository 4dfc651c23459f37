import { generatePath } from 'react-router';
import { menuModel, type MenuNode, type PageKey } from '@ksp/contracts';

/** The route pattern of a page key, from the contract's menu model (the one table of menu paths). */
function pathOfPage(key: PageKey, nodes: readonly MenuNode[] = menuModel): string {
  for (const node of nodes) {
    if (node.component === key) return node.path;
    const inner = node.children ? pathOfPage(key, node.children) : '';
    if (inner) return inner;
  }
  return '';
}

export const serverListPath = pathOfPage('credential/server/index');
export const addServerPath = pathOfPage('credential/add-server');
export const serverDetailPath = (id: string) => generatePath(pathOfPage('credential/detail-server'), { id });

/** The web SSH terminal of a server (a route outside the layout: it opens in a new tab). */
export const terminalPath = (id: string) => `/linux-ssh?id=${encodeURIComponent(id)}`;
