FROM python:3.11-slim
ENV PIP_NO_CACHE_DIR=1 PYTHONUNBUFFERED=1
WORKDIR /app
# CPU-only torch first, so sentence-transformers does not pull a CUDA build.
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY pipeline ./pipeline
COPY classifiers ./classifiers
COPY review ./review
RUN pip install ".[oauth]"
RUN useradd --create-home orienta && mkdir -p /data && chown orienta /data
USER orienta
ENV ORIENTA_DATA_DIR=/data ORIENTA_PATHS__DOCUMENTS='["/documents"]'
EXPOSE 3000
CMD ["orienta", "run"]
