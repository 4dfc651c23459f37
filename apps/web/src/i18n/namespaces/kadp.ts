// A signed-in page's namespace: both languages load with it, never before the login form.
export const kadp = {
  en: () => import('../en/kadp').then((m) => m.kadp),
  zh: () => import('../zh/kadp').then((m) => m.kadp),
};
