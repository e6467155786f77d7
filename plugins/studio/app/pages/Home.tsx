/** The start page: the objects this user may read, with their descriptions. */
import { useTitle } from '../hooks';
import { useStudio } from '../studio';

export function Home() {
  const studio = useStudio();
  useTitle('', studio.settings.title);
  const objects = [...studio.objects.values()];
  return (
    <>
      <h1>Objects</h1>
      {objects.length ? (
        <ul class="cards">
          {objects.map((o) => (
            <li key={o.name}>
              <a href={studio.href(`/o/${encodeURIComponent(o.name)}`)}>{o.label}</a>
              {o.description ? <p>{o.description}</p> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p>There is no object you may read.</p>
      )}
    </>
  );
}
