import type { UIMatch } from 'react-router';
import { i18n } from '../i18n/i18n';
import { isMenuTitleKey } from '../i18n/resources';

export interface Crumb {
  /** A `menu` namespace key (the server's meta.title) or literal text. */
  title: string;
  /** Where the crumb links to; none for the last crumb or a group without a page. */
  path?: string | undefined;
}

/** What a route tells the shell: title, tab and cache rules, breadcrumb trail, menu entry to light. */
export interface RouteHandle {
  title?: string;
  /** Route name: cached views are tracked by it. */
  name?: string;
  affix?: boolean;
  noCache?: boolean;
  trail?: Crumb[];
  /** The side-menu entry to highlight (a hidden page lights its visible parent). */
  activeMenu?: string | undefined;
}

export function handleOf(match: UIMatch | undefined): RouteHandle | undefined {
  const handle = match?.handle;
  return typeof handle === 'object' && handle !== null ? handle : undefined;
}

/** The deepest matched route that carries a handle. */
export function leafHandle(matches: readonly UIMatch[]): RouteHandle | undefined {
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = handleOf(matches[i]);
    if (handle) return handle;
  }
  return undefined;
}

/** A menu title key translated; an unknown key (a server title we lack) is shown as it is. */
export function translateTitle(title: string, language?: string): string {
  return isMenuTitleKey(title) ? i18n.t(`menu:${title}`, { lng: language ?? i18n.language }) : title;
}
