import type { ReactNode } from 'react';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { AppProviders, createQueryClient } from './app/providers';

/** Renders `element` at `path` inside the app's providers, with stand-in pages for other paths. */
export function renderPage(
  path: string,
  routePath: string,
  element: ReactNode,
  others: Record<string, string> = {},
) {
  const router = createMemoryRouter(
    [
      { path: routePath, element },
      ...Object.entries(others).map(([otherPath, text]) => ({ path: otherPath, element: <p>{text}</p> })),
    ],
    { initialEntries: [path] },
  );
  const view = render(
    <AppProviders queryClient={createQueryClient()}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { router, ...view };
}
