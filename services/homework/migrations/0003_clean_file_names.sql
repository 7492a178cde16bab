-- File names as the platform keeps them from now on (contracts' cleanFileName): control characters
-- (line breaks, tabs) become a space, bidi and zero-width characters are removed — a right-to-left
-- override made a name read as something it was not. Rows written before are cleaned the same way;
-- a name that would be left empty keeps the file's id as its name.
update files
set name = coalesce(
  nullif(
    btrim(regexp_replace(
      regexp_replace(normalize(name, NFC), '[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]', '', 'g'),
      '[\u0001-\u001f\u007f-\u009f\u2028\u2029[:space:]]+', ' ', 'g')),
    ''),
  id)
where name ~ '[\u0001-\u001f\u007f-\u009f\u2028\u2029\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]'
   or name ~ '\s\s' or name <> btrim(name) or name <> normalize(name, NFC);
