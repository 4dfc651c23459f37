// A signed-in page's namespace: both languages load with it, never before the login form.
export const credential = {
  en: () => import('../en/credential').then((m) => m.credential),
  zh: () => import('../zh/credential').then((m) => m.credential),
};
