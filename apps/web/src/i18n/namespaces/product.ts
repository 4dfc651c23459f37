// A signed-in page's namespace: both languages load with it, never before the login form.
export const product = {
  en: () => import('../en/product').then((m) => m.product),
  zh: () => import('../zh/product').then((m) => m.product),
};
