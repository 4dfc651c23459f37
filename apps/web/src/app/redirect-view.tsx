import { useEffect } from 'react';
import { Navigate, useLocation, useNavigate, useParams } from 'react-router';
import { paths } from '../config/paths';

/** /redirect/<path>: goes on to /<path> (with its query), re-rendering that view from scratch. */
export function RedirectView() {
  const params = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const target = `/${params['*'] ?? ''}${location.search}`;
  useEffect(() => {
    void navigate(target, { replace: true });
  }, [navigate, target]);
  return null;
}

/** Any unknown path. */
export function NotFoundRedirect() {
  return <Navigate to={paths.notFound} replace />;
}
