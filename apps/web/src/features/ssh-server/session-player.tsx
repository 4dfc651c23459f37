import { useEffect, useRef } from 'react';
import { create } from 'asciinema-player';
import 'asciinema-player/dist/bundle/asciinema-player.css';

/**
 * Plays an asciicast v2 recording with asciinema-player (play/pause, seek, speed, full
 * screen). Loaded on demand: only the replay dialog needs it.
 */
export default function SessionPlayer({ cast }: { cast: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const player = create({ data: cast }, box.current, {
      // The whole terminal and its controls in view, whatever the recorded size.
      fit: 'both',
      autoPlay: true,
      // Long pauses (someone reading) are shortened to 2 s when replayed.
      idleTimeLimit: 2,
      terminalFontFamily: 'Menlo, Consolas, "DejaVu Sans Mono", monospace',
    });
    return () => player.dispose();
  }, [cast]);
  return <div ref={box} style={{ height: '65vh' }} data-testid="session-player" />;
}
