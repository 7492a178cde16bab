# PostgreSQL with the Kazakh ispell dictionary for the knowledge service's full-text search
# (Debian's hunspell-kk converted as scripts/ensure-kazakh.ts does: no BOM, LF line ends).
FROM postgres:15
RUN apt-get update \
 && apt-get install -y --no-install-recommends hunspell-kk \
 && rm -rf /var/lib/apt/lists/* \
 && d=/usr/share/postgresql/15/tsearch_data \
 && sed '1s/^\xEF\xBB\xBF//' /usr/share/hunspell/kk_KZ.dic | tr -d '\r' > "$d/kk_kz.dict" \
 && sed '1s/^\xEF\xBB\xBF//' /usr/share/hunspell/kk_KZ.aff | tr -d '\r' > "$d/kk_kz.affix"
