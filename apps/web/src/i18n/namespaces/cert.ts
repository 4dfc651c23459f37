// Signed-in pages (and the public /sign-cert, whose route loads it): both languages load with them.
export const cert = {
  en: () => import('../en/cert').then((m) => m.cert),
  zh: () => import('../zh/cert').then((m) => m.cert),
};
