import { Activity, useState, type ReactNode } from 'react';
import { useLocation, useMatches, useOutlet } from 'react-router';
import { ViewActiveContext } from '../../components/view-activity';
import { leafHandle } from '../route-handle';

interface Entry {
  locationKey: string;
  element: ReactNode;
}

/**
 * The content outlet with keep-alive: the page of a named route that is not
 * `noCache` renders inside an <Activity> keyed by the route name, and stays mounted
 * (hidden, state kept) while its name is in `cachedViews`. Other pages render plainly.
 */
export function KeepAliveOutlet({ cachedViews }: { cachedViews: readonly string[] }) {
  const outlet = useOutlet();
  const location = useLocation();
  const handle = leafHandle(useMatches());
  const current = handle?.name && !handle.noCache ? handle.name : null;
  const [entries, setEntries] = useState<ReadonlyMap<string, Entry>>(() => new Map());

  const kept = (name: string) => name === current || cachedViews.includes(name);
  const stale = [...entries.keys()].some((name) => !kept(name));
  if ((current && entries.get(current)?.locationKey !== location.key) || stale) {
    // Storing information from this render (React's documented "adjust state on change" pattern).
    const next = new Map([...entries].filter(([name]) => kept(name)));
    if (current) next.set(current, { locationKey: location.key, element: outlet });
    setEntries(next);
  }

  return (
    <>
      {[...entries].map(([name, entry]) => (
        <Activity key={name} mode={name === current ? 'visible' : 'hidden'} name={name}>
          <ViewActiveContext value={name === current}>{entry.element}</ViewActiveContext>
        </Activity>
      ))}
      {current === null && outlet}
    </>
  );
}
