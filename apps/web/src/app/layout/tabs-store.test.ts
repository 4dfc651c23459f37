import { describe, expect, it } from 'vitest';
import {
  initialTabsState,
  NO_NAME,
  tabsReducer,
  type TabsAction,
  type TabsState,
  type ViewInput,
} from './tabs-store';

const dashboard: ViewInput = {
  path: '/console/dashboard',
  name: 'Dashboard',
  meta: { title: 'dashboard', affix: true },
};
const config: ViewInput = {
  path: '/console/setting/config',
  fullPath: '/console/setting/config?key=MFA',
  name: 'SettingConfig',
  meta: { title: 'config' },
};
const profile: ViewInput = {
  path: '/console/user-setting/index',
  name: 'UserSetting',
  meta: { title: 'profile' },
};
const uncached: ViewInput = { path: '/console/log', name: 'Log', meta: { title: 'log', noCache: true } };

function run(...actions: TabsAction[]): TabsState {
  return actions.reduce(tabsReducer, initialTabsState);
}

const paths = (state: TabsState) => state.visitedViews.map((v) => v.path);

describe('tabs store', () => {
  it('adds a visited and cached view', () => {
    const state = run({ type: 'addView', view: config });
    expect(state.visitedViews).toEqual([
      {
        path: '/console/setting/config',
        fullPath: '/console/setting/config?key=MFA',
        name: 'SettingConfig',
        title: 'config',
        meta: { title: 'config' },
      },
    ]);
    expect(state.cachedViews).toEqual(['SettingConfig']);
  });

  it('never adds a path twice', () => {
    const state = run(
      { type: 'addView', view: config },
      { type: 'addView', view: { ...config, fullPath: '/other' } },
    );
    expect(paths(state)).toEqual(['/console/setting/config']);
    expect(state.cachedViews).toEqual(['SettingConfig']);
  });

  it("titles a view without meta.title 'no-name'", () => {
    const state = run({ type: 'addVisitedView', view: { path: '/x' } });
    expect(state.visitedViews[0]?.title).toBe(NO_NAME);
    expect(NO_NAME).toBe('no-name');
    expect(state.visitedViews[0]?.fullPath).toBe('/x');
  });

  it('does not cache noCache views or views without a name', () => {
    const state = run(
      { type: 'addView', view: uncached },
      { type: 'addView', view: { path: '/y', meta: { title: 'y' } } },
    );
    expect(paths(state)).toEqual(['/console/log', '/y']);
    expect(state.cachedViews).toEqual([]);
  });

  it('tracks cached views by route name', () => {
    const state = run(
      { type: 'addCachedView', view: config },
      { type: 'addCachedView', view: { ...config, path: '/console/setting/config/2' } },
    );
    expect(state.cachedViews).toEqual(['SettingConfig']);
    expect(state.visitedViews).toEqual([]);
  });

  it('deletes one view (tab and cache)', () => {
    const state = run(
      { type: 'addView', view: config },
      { type: 'addView', view: profile },
      { type: 'delView', view: config },
    );
    expect(paths(state)).toEqual(['/console/user-setting/index']);
    expect(state.cachedViews).toEqual(['UserSetting']);
  });

  it('deletes only the cache entry (refresh) or only the tab', () => {
    const base = run({ type: 'addView', view: config });
    const uncachedState = tabsReducer(base, { type: 'delCachedView', view: config });
    expect(paths(uncachedState)).toEqual(['/console/setting/config']);
    expect(uncachedState.cachedViews).toEqual([]);
    const noTab = tabsReducer(base, { type: 'delVisitedView', view: config });
    expect(paths(noTab)).toEqual([]);
    expect(noTab.cachedViews).toEqual(['SettingConfig']);
  });

  it('deletes the others but keeps affixed tabs', () => {
    const state = run(
      { type: 'addView', view: dashboard },
      { type: 'addView', view: config },
      { type: 'addView', view: profile },
      { type: 'delOthersViews', view: profile },
    );
    expect(paths(state)).toEqual(['/console/dashboard', '/console/user-setting/index']);
    expect(state.cachedViews).toEqual(['Dashboard', 'UserSetting']);
  });

  it('affixed tabs survive delete-all', () => {
    const state = run(
      { type: 'addView', view: dashboard },
      { type: 'addView', view: config },
      { type: 'addView', view: profile },
      { type: 'delAllViews' },
    );
    expect(paths(state)).toEqual(['/console/dashboard']);
    expect(state.cachedViews).toEqual(['Dashboard']);
  });

  it('updates a visited view (new query, new title)', () => {
    const state = run(
      { type: 'addView', view: config },
      { type: 'updateVisitedView', view: { ...config, fullPath: '/console/setting/config?page=2' } },
    );
    expect(state.visitedViews[0]?.fullPath).toBe('/console/setting/config?page=2');
    const same = tabsReducer(state, {
      type: 'updateVisitedView',
      view: { ...config, fullPath: '/console/setting/config?page=2' },
    });
    expect(same).toBe(state);
    const unknown = tabsReducer(state, { type: 'updateVisitedView', view: { path: '/nope' } });
    expect(unknown).toBe(state);
  });

  it('logout drops every tab, affixed ones too', () => {
    const state = run(
      { type: 'addView', view: dashboard },
      { type: 'addView', view: config },
      { type: 'reset' },
    );
    expect(state).toEqual(initialTabsState);
  });

  it('returns the same state when nothing changes', () => {
    const state = run({ type: 'addView', view: config });
    expect(tabsReducer(state, { type: 'addView', view: config })).toBe(state);
  });
});
