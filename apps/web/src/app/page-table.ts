import type { ComponentType } from 'react';
import type { PageKey } from '@ksp/contracts';

export type PageModule = () => Promise<{ default: ComponentType }>;

/**
 * The one table from the server's page keys (menu `component`) to lazy pages.
 * Typed by the contract's `pageKeys`: a key without a page fails the type check.
 */
export const pageTable: Record<PageKey, PageModule> = {
  'console/dashboard/index': () => import('../features/dashboard/dashboard-page'),
  'console/setting/config/index': () => import('../features/config/config-page'),
};

export const notFoundPage: PageModule = () => import('../features/errors/not-found-page');

/** The page of a key; an unknown key renders the 404 page. */
export function pageFor(key: string): PageModule {
  return Object.hasOwn(pageTable, key) ? pageTable[key as PageKey] : notFoundPage;
}
