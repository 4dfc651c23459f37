// A signed-in page's namespace: both languages load with it, never before the login form.
export const alarm = {
  en: () => import('../en/alarm').then((m) => m.alarm),
  zh: () => import('../zh/alarm').then((m) => m.alarm),
};
