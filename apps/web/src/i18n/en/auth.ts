export const auth = {
  login: {
    title: 'Log in',
    username: 'Username',
    password: 'Password',
    submit: 'Log in',
    usernameRequired: 'Please enter your username',
    directoryHint: 'Directory users log in as connection/username',
    mfaOn: 'A Ukey is required after the password',
    badCredentials: 'Incorrect username or password',
  },
  ukey: {
    prompt: 'Please log in with Ukey',
    back: 'Back to password login',
  },
  authRedirect: {
    loading: 'Loading your account…',
    success: 'Authentication succeeded',
    successText: 'You are signed in. The console opens in a moment.',
    enter: 'Enter the console',
    failed: 'Sign-in failed',
    toLogin: 'Go to log in',
  },
  iframeInit: {
    waiting: 'Waiting for the host page to sign you in…',
    standalone: 'This page is used when the console is embedded in another page.',
    toLogin: 'Go to log in',
  },
};
