// A signed-in page's namespace: both languages load with it, never before the login form.
export const kmip = {
  en: () => import('../en/kmip').then((m) => m.kmip),
  zh: () => import('../zh/kmip').then((m) => m.kmip),
};
