import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM } from './browser.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The one Chromium of the run (support/browser.ts connects to it). */
    chromiumEndpoint: string;
  }
}

/**
 * One Chromium for the whole run: each file connects to it instead of starting its own, and
 * each test still works in a browser context of its own (docs/testing.md#end-to-end).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await chromium.launchServer(CHROMIUM);
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
