export const errors = {
  notFound: {
    title: '404',
    text: 'The page you are looking for does not exist.',
  },
  unauthorized: {
    title: '401',
    text: 'You cannot access this page...',
  },
  upcoming: {
    text: 'This page is not available yet: it arrives with its module.',
    remoteAdd: 'Here a remote client will enrol itself with this server using a registration token.',
    toLogin: 'Go to the login page',
  },
  crash: {
    title: 'Something went wrong',
    text: 'The page failed to render. Reload to try again.',
  },
};
