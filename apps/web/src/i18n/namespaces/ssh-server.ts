// A signed-in page's namespace: both languages load with it, never before the login form.
export const sshServer = {
  en: () => import('../en/ssh-server').then((m) => m.sshServer),
  zh: () => import('../zh/ssh-server').then((m) => m.sshServer),
};
