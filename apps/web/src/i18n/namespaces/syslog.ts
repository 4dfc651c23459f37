// A signed-in page's namespace: both languages load with it, never before the login form.
export const syslog = {
  en: () => import('../en/syslog').then((m) => m.syslog),
  zh: () => import('../zh/syslog').then((m) => m.syslog),
};
