import { useEffect } from 'react';
import { Outlet, useMatches, useNavigation } from 'react-router';
import { currentLanguage } from '../i18n/i18n';
import { useT } from '../i18n/i18n';
import { useProductTitle } from '../components/use-site-config';
import { leafHandle, translateTitle } from './route-handle';

// The progress bar is for the navigations that follow: it loads once the first page shows.
const loadProgressBar = () => import('./progress-bar').then((m) => m.progressBar);

/** The page title: the translated route title, then the product title. */
export function pageTitle(routeTitle: string | undefined, productTitle: string): string {
  return routeTitle ? `${routeTitle} - ${productTitle}` : productTitle;
}

/** Root of every route: document title and the navigation progress bar. */
export function RootShell() {
  useT();
  const matches = useMatches();
  const navigation = useNavigation();
  const product = useProductTitle();
  const title = leafHandle(matches)?.title;
  const language = currentLanguage();

  useEffect(() => {
    document.title = pageTitle(title ? translateTitle(title, language) : undefined, product);
  }, [title, product, language]);

  useEffect(() => {
    const idle = navigation.state === 'idle';
    void loadProgressBar().then((bar) => (idle ? bar.done() : bar.start()));
  }, [navigation.state]);

  return <Outlet />;
}
