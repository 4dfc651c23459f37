import {
  createContext,
  useCallback,
  useContext,
  useMemo,
  useReducer,
  type Dispatch,
  type ReactNode,
} from 'react';
import { useLocation, useNavigate } from 'react-router';
import { initialTabsState, tabsReducer, type TabsAction, type TabsState } from './tabs-store';

interface TabsContextValue {
  state: TabsState;
  dispatch: Dispatch<TabsAction>;
}

const TabsContext = createContext<TabsContextValue | null>(null);

export function TabsProvider({ children }: { children: ReactNode }) {
  const [state, dispatch] = useReducer(tabsReducer, initialTabsState);
  const value = useMemo(() => ({ state, dispatch }), [state]);
  return <TabsContext value={value}>{children}</TabsContext>;
}

/** The open tabs and cached views of the layout, and the reducer's dispatch. */
export function useTabs(): TabsContextValue {
  const value = useContext(TabsContext);
  if (!value) throw new Error('useTabs outside TabsProvider');
  return value;
}

/**
 * Goes to `to` and closes the current page's tab and cached view: a form that is done (an
 * "add" page after saving) does not stay open with its old values. Outside the layout (a
 * page on its own) it only navigates.
 */
export function useLeaveTab(): (to: string) => void {
  const tabs = useContext(TabsContext);
  const navigate = useNavigate();
  const { pathname } = useLocation();
  return useCallback(
    (to: string) => {
      const current = tabs?.state.visitedViews.find((v) => v.path === pathname);
      if (current && !current.meta.affix) tabs?.dispatch({ type: 'delView', view: current });
      void navigate(to);
    },
    [tabs, navigate, pathname],
  );
}
