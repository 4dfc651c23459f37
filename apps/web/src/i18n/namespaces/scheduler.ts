// A signed-in page's namespace: both languages load with it, never before the login form.
export const scheduler = {
  en: () => import('../en/scheduler').then((m) => m.scheduler),
  zh: () => import('../zh/scheduler').then((m) => m.scheduler),
};
