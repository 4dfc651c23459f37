import { afterEach } from 'vitest';
import { cleanup } from '@testing-library/react';

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

afterEach(() => {
  cleanup();
  localStorage.clear();
});
