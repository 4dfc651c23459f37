import { createContext, useContext, useMemo, useReducer, type Dispatch, type ReactNode } from 'react';
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
