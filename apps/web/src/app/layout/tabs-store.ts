/** A tab of the tags view: one visited view. */
export interface TabView {
  /** Path name: tabs are unique by it. */
  path: string;
  /** Path with its query: where clicking the tab goes. */
  fullPath: string;
  /** Route name: cached views are tracked by it. */
  name?: string | undefined;
  /** meta.title, or 'no-name'. */
  title: string;
  meta: TabMeta;
}

export interface TabMeta {
  title?: string | undefined;
  affix?: boolean | undefined;
  noCache?: boolean | undefined;
}

export interface ViewInput {
  path: string;
  fullPath?: string | undefined;
  name?: string | undefined;
  meta?: TabMeta | undefined;
}

export interface TabsState {
  visitedViews: TabView[];
  /** Names of the views whose pages stay mounted while hidden. */
  cachedViews: string[];
}

export type TabsAction =
  | { type: 'addView'; view: ViewInput }
  | { type: 'addVisitedView'; view: ViewInput }
  | { type: 'addCachedView'; view: ViewInput }
  | { type: 'delView'; view: ViewInput }
  | { type: 'delVisitedView'; view: ViewInput }
  | { type: 'delCachedView'; view: ViewInput }
  | { type: 'delOthersViews'; view: ViewInput }
  | { type: 'delAllViews' }
  | { type: 'updateVisitedView'; view: ViewInput }
  | { type: 'reset' };

export const NO_NAME = 'no-name';

export const initialTabsState: TabsState = { visitedViews: [], cachedViews: [] };

export function toTabView(view: ViewInput): TabView {
  const meta = view.meta ?? {};
  return {
    path: view.path,
    fullPath: view.fullPath ?? view.path,
    name: view.name,
    title: meta.title || NO_NAME,
    meta,
  };
}

function addVisited(state: TabsState, view: ViewInput): TabsState {
  if (state.visitedViews.some((v) => v.path === view.path)) return state;
  return { ...state, visitedViews: [...state.visitedViews, toTabView(view)] };
}

function addCached(state: TabsState, view: ViewInput): TabsState {
  if (!view.name || view.meta?.noCache || state.cachedViews.includes(view.name)) return state;
  return { ...state, cachedViews: [...state.cachedViews, view.name] };
}

function delVisited(state: TabsState, view: ViewInput): TabsState {
  return { ...state, visitedViews: state.visitedViews.filter((v) => v.path !== view.path) };
}

function delCached(state: TabsState, view: ViewInput): TabsState {
  if (!view.name) return state;
  return { ...state, cachedViews: state.cachedViews.filter((name) => name !== view.name) };
}

/** Keeps `keep` of the visited views; cached names are kept only for views still open. */
function keepViews(state: TabsState, keep: (view: TabView) => boolean): TabsState {
  const visitedViews = state.visitedViews.filter(keep);
  const openNames = new Set(visitedViews.map((v) => v.name).filter((name) => name !== undefined));
  return { visitedViews, cachedViews: state.cachedViews.filter((name) => openNames.has(name)) };
}

/**
 * The tags view rules (docs/console.md#tabs): no duplicate paths; title from meta.title or
 * 'no-name'; not cached with meta.noCache; affixed tabs survive "close others" and
 * "close all"; logout (`reset`) drops every tab.
 */
export function tabsReducer(state: TabsState, action: TabsAction): TabsState {
  switch (action.type) {
    case 'addView':
      return addCached(addVisited(state, action.view), action.view);
    case 'addVisitedView':
      return addVisited(state, action.view);
    case 'addCachedView':
      return addCached(state, action.view);
    case 'delView':
      return delCached(delVisited(state, action.view), action.view);
    case 'delVisitedView':
      return delVisited(state, action.view);
    case 'delCachedView':
      return delCached(state, action.view);
    case 'delOthersViews':
      return keepViews(state, (v) => Boolean(v.meta.affix) || v.path === action.view.path);
    case 'delAllViews':
      return keepViews(state, (v) => Boolean(v.meta.affix));
    case 'updateVisitedView': {
      const { view } = action;
      let changed = false;
      const visitedViews = state.visitedViews.map((v) => {
        if (v.path !== view.path) return v;
        const next = toTabView({
          ...v,
          ...view,
          fullPath: view.fullPath ?? v.fullPath,
          meta: view.meta ?? v.meta,
        });
        if (next.fullPath === v.fullPath && next.title === v.title && next.name === v.name) return v;
        changed = true;
        return next;
      });
      return changed ? { ...state, visitedViews } : state;
    }
    case 'reset':
      return initialTabsState;
  }
}
