import NProgress from 'nprogress';
import 'nprogress/nprogress.css';

NProgress.configure({ showSpinner: false });

/** The navigation progress bar (loaded by the root shell at the first navigation). */
export const progressBar = NProgress;
