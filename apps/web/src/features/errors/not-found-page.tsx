import { NotFound } from '../../components/not-found';

/** The /404 route. */
export default function NotFoundPage() {
  return <NotFound />;
}
