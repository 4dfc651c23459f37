export const errors = {
  notFound: {
    title: '404',
    text: 'The page you are looking for does not exist.',
  },
  unauthorized: {
    title: '401',
    text: 'You cannot access this page...',
  },
  crash: {
    title: 'Something went wrong',
    text: 'The page failed to render. Reload to try again.',
  },
};
