import { useEffect } from 'react';
import { describe, expect, it } from 'vitest';
import { act, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { TabsProvider, useLeaveTab, useTabs } from './tabs-context';

function Probe() {
  const { state, dispatch } = useTabs();
  const location = useLocation();
  const leave = useLeaveTab();
  useEffect(() => {
    dispatch({
      type: 'addView',
      view: { path: '/console/dashboard', name: 'dash', meta: { title: 'Dashboard', affix: true } },
    });
    dispatch({
      type: 'addView',
      view: { path: '/credential/add-server', name: 'add', meta: { title: 'Add a server' } },
    });
  }, [dispatch]);
  return (
    <div>
      <span data-testid="at">{location.pathname}</span>
      <span data-testid="tabs">{state.visitedViews.map((v) => v.path).join(',')}</span>
      <span data-testid="cached">{state.cachedViews.join(',')}</span>
      <button type="button" onClick={() => leave('/credential/detail-server/1')}>
        save
      </button>
    </div>
  );
}

describe('useLeaveTab', () => {
  it("goes on and closes the page's tab and cached view, leaving the others", () => {
    render(
      <MemoryRouter initialEntries={['/credential/add-server']}>
        <TabsProvider>
          <Routes>
            <Route path="*" element={<Probe />} />
          </Routes>
        </TabsProvider>
      </MemoryRouter>,
    );
    expect(screen.getByTestId('tabs').textContent).toBe('/console/dashboard,/credential/add-server');
    act(() => screen.getByRole('button', { name: 'save' }).click());
    expect(screen.getByTestId('at').textContent).toBe('/credential/detail-server/1');
    expect(screen.getByTestId('tabs').textContent).toBe('/console/dashboard');
    expect(screen.getByTestId('cached').textContent).toBe('dash');
  });

  it('only navigates outside the layout', () => {
    function Alone() {
      const go = useLeaveTab();
      const location = useLocation();
      return (
        <button type="button" onClick={() => go('/elsewhere')}>
          {location.pathname}
        </button>
      );
    }
    render(
      <MemoryRouter initialEntries={['/linux-ssh']}>
        <Routes>
          <Route path="*" element={<Alone />} />
        </Routes>
      </MemoryRouter>,
    );
    act(() => screen.getByRole('button').click());
    expect(screen.getByRole('button').textContent).toBe('/elsewhere');
  });
});
