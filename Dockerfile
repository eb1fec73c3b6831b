# The agreement server's image: web (gunicorn) and worker (celery) run from it.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    AGREEMENT_VAR_DIR=/app/var

WORKDIR /app

# Dependencies first, so a code change does not reinstall them.
COPY pyproject.toml README.md ./
COPY agreement_server/__init__.py agreement_server/
COPY studies/__init__.py studies/
COPY metrics/__init__.py metrics/
RUN pip install --upgrade pip && pip install . && pip uninstall --yes agreement-server

COPY . .
RUN pip install --no-deps . \
    && DEBUG=1 python manage.py collectstatic --noinput \
    && useradd --system --uid 10001 --home-dir /app app \
    && mkdir -p /app/var \
    && chown -R app /app/var

USER app
EXPOSE 8000
CMD ["gunicorn", "agreement_server.wsgi:application", "--bind=0.0.0.0:8000", "--workers=3", "--access-logfile=-"]
