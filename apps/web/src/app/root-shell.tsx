import { useEffect } from 'react';
import NProgress from 'nprogress';
import { Outlet, useMatches, useNavigation } from 'react-router';
import { currentLanguage } from '../i18n/i18n';
import { useT } from '../i18n/i18n';
import { useProductTitle } from '../components/use-site-config';
import { leafHandle, translateTitle } from './route-handle';

NProgress.configure({ showSpinner: false });

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
    if (navigation.state === 'idle') NProgress.done();
    else NProgress.start();
  }, [navigation.state]);

  return <Outlet />;
}
