import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { useViewSearchParams } from '../../components/view-activity';
import { KeepAliveOutlet } from './keep-alive-outlet';

function Page({ label }: { label: string }) {
  const [text, setText] = useState('');
  const [params] = useViewSearchParams();
  return (
    <label>
      {label}
      <input aria-label={label} value={text} onChange={(event) => setText(event.target.value)} />
      <span data-testid={`${label}-q`}>{params.get('q') ?? ''}</span>
    </label>
  );
}

function Shell() {
  const [cached, setCached] = useState(['A', 'B']);
  return (
    <>
      <button onClick={() => setCached(['B'])}>forget A</button>
      <KeepAliveOutlet cachedViews={cached} />
    </>
  );
}

const routes: RouteObject[] = [
  {
    element: <Shell />,
    children: [
      { path: '/a', element: <Page label="A" />, handle: { name: 'A', title: 'a' } },
      { path: '/b', element: <Page label="B" />, handle: { name: 'B', title: 'b' } },
      { path: '/c', element: <Page label="C" />, handle: { name: 'C', title: 'c', noCache: true } },
      { path: '/plain', element: <Page label="P" /> },
    ],
  },
];

function setup(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(<RouterProvider router={router} />);
  return router;
}

const input = (label: string) => screen.getByLabelText<HTMLInputElement>(label);
const go = (router: ReturnType<typeof setup>, path: string) => act(() => router.navigate(path));

describe('keep-alive outlet', () => {
  it('keeps a cached view mounted (hidden) with its state', async () => {
    const router = setup('/a');
    fireEvent.change(input('A'), { target: { value: 'typed on A' } });
    await go(router, '/b');
    expect(input('A').value).toBe('typed on A');
    expect(input('A').closest('label')?.style.display).toBe('none');
    expect(input('B').closest('label')?.style.display).toBe('');
    await go(router, '/a');
    expect(input('A').value).toBe('typed on A');
  });

  it('does not keep a noCache view', async () => {
    const router = setup('/c');
    fireEvent.change(input('C'), { target: { value: 'typed on C' } });
    await go(router, '/a');
    expect(screen.queryByLabelText('C')).toBeNull();
    await go(router, '/c');
    expect(input('C').value).toBe('');
  });

  it('drops a view whose name leaves the cached views', async () => {
    const router = setup('/a');
    fireEvent.change(input('A'), { target: { value: 'typed on A' } });
    await go(router, '/b');
    fireEvent.click(screen.getByRole('button', { name: 'forget A' }));
    expect(screen.queryByLabelText('A')).toBeNull();
    await go(router, '/a');
    expect(input('A').value).toBe('');
  });

  it('renders a route without a name plainly', async () => {
    setup('/plain');
    expect(input('P')).toBeTruthy();
  });

  it("freezes a hidden view's search params at its own", async () => {
    const router = setup('/a?q=1');
    expect(screen.getByTestId('A-q').textContent).toBe('1');
    await go(router, '/b?q=2');
    expect(screen.getByTestId('B-q').textContent).toBe('2');
    expect(screen.getByTestId('A-q').textContent).toBe('1');
    await go(router, '/a?q=3');
    expect(screen.getByTestId('A-q').textContent).toBe('3');
  });
});
