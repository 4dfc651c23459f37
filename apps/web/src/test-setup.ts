import { afterEach } from 'vitest';
import { cleanup, configure } from '@testing-library/react';
import { i18n, loadPageNamespaces } from './i18n/i18n';

// antd reads media queries (Grid, responsive observers); jsdom has no matchMedia.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener() {},
    removeListener() {},
    addEventListener() {},
    removeEventListener() {},
    dispatchEvent() {
      return false;
    },
  }),
});

// rc-component's resize observer (Select, Table, Tabs) needs one; jsdom does not lay out anyway.
class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
if (!('ResizeObserver' in window)) {
  Object.defineProperty(window, 'ResizeObserver', { writable: true, value: ResizeObserverStub });
}

// jsdom lays nothing out and has no scrollIntoView; tests that care spy on this one.
if (!('scrollIntoView' in Element.prototype)) {
  Object.defineProperty(Element.prototype, 'scrollIntoView', { writable: true, value() {} });
}

// waitFor/findBy give up after 1 s by default. On a 2-core CI machine running the suite in
// parallel, an antd re-render after a route change can take longer than that (5 s ran out
// under a load of 11 in session 22 for the log filters and the user table); a test that waits
// for something that never comes still fails, only later.
configure({ asyncUtilTimeout: 10_000 });

afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});

// Pages render here without the layout, which loads the namespaces not in the bundle.
await loadPageNamespaces();
// Most files share their worker with the files before them (vitest.config.ts): each starts in
// English whatever the one before left.
if (i18n.language !== 'en') await i18n.changeLanguage('en');
