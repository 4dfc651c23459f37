// A signed-in page's namespace: both languages load with it, never before the login form.
export const hsm = {
  en: () => import('../en/hsm').then((m) => m.hsm),
  zh: () => import('../zh/hsm').then((m) => m.hsm),
};
